import { adapterModule } from '../../core/contracts/index.js';
import { OidcIdentityProvider } from './oidc-identity-provider.js';

export { OidcIdentityProvider };
export default adapterModule('identity', OidcIdentityProvider);
