// The key pairs moved to test/helpers/certs.ts (shared with the adapters' tests); this path stays for its importers.
export { makeKeyPair, type KeyPair } from '../../../../test/helpers/certs.js';
