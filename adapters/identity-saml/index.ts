import { adapterModule } from '../../core/contracts/index.js';
import { SamlIdentityProvider } from './saml-identity-provider.js';

export { SamlIdentityProvider };
export default adapterModule('identity', SamlIdentityProvider);
