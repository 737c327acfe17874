import sodium from 'libsodium-wrappers';

/**
 * A libsodium sealed box of `value` for the repository's public key (base64), base64 encoded:
 * what GitHub's secrets API takes as `encrypted_value`.
 */
export async function sealForRepository(publicKeyB64: string, value: string): Promise<string> {
  await sodium.ready;
  const key = sodium.from_base64(publicKeyB64, sodium.base64_variants.ORIGINAL);
  const sealed = sodium.crypto_box_seal(sodium.from_string(value), key);
  return sodium.to_base64(sealed, sodium.base64_variants.ORIGINAL);
}
