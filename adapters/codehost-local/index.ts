import { adapterModule } from '../../core/contracts/index.js';
import { LocalCodeHost } from './local-code-host.js';

export { LocalCodeHost } from './local-code-host.js';
export { localPageRoutes, type LocalPageAccess } from './pages.js';

/** codehost-local: bare git repositories under the data directory, pull requests in the database. */
export default adapterModule('codeHost', LocalCodeHost, (host) => host.close());
