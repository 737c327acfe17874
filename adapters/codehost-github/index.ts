import { adapterModule } from '../../core/contracts/index.js';
import { GithubCodeHost } from './github-code-host.js';

export { GithubCodeHost } from './github-code-host.js';

/** codehost-github: a GitHub App (JWT, installation tokens, X-Hub-Signature-256, sealed secrets). */
export default adapterModule('codeHost', GithubCodeHost);
