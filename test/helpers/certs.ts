import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PEM private key and its certificate. */
export interface KeyPair {
  key: string;
  cert: string;
}

export interface KeyPairOptions {
  /** A certificate that ended in 2020 (signed by its own key through `openssl ca`, which takes past dates). */
  expired?: boolean;
  /** How long a current certificate lasts (default 30). */
  days?: number;
  /** An X.509 subjectAltName, e.g. `IP:127.0.0.1,DNS:localhost` for a TLS peer on this machine. */
  subjectAltName?: string;
}

const run = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed RSA key and certificate for `/CN=<cn>`, made with openssl (identity providers, SNS, TLS peers). */
export function makeKeyPair(cn: string, opts: KeyPairOptions = {}): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'pw-cert-'));
  try {
    if (!opts.expired) {
      const san = opts.subjectAltName ? ['-addext', `subjectAltName=${opts.subjectAltName}`] : [];
      const days = String(opts.days ?? 30);
      const out = ['-keyout', 'k.pem', '-out', 'c.pem'];
      run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', ...out, '-days', days, '-subj', `/CN=${cn}`, ...san], dir);
    } else {
      run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', `/CN=${cn}`], dir);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'serial'), '01\n');
      writeFileSync(
        join(dir, 'ca.cnf'),
        `[ca]\ndefault_ca=CA\n[CA]\ndatabase=${dir}/index.txt\nnew_certs_dir=${dir}\nserial=${dir}/serial\ndefault_md=sha256\npolicy=pol\n[pol]\ncommonName=supplied\n`,
      );
      const in2020 = ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'];
      run(
        [
          'ca',
          '-batch',
          '-selfsign',
          '-config',
          'ca.cnf',
          '-keyfile',
          'k.pem',
          '-in',
          'r.csr',
          ...in2020,
          '-out',
          'c.pem',
        ],
        dir,
      );
    }
    // `openssl ca` writes a text dump before the PEM block.
    const cert = readFileSync(join(dir, 'c.pem'), 'utf8');
    return {
      key: readFileSync(join(dir, 'k.pem'), 'utf8'),
      cert: cert.slice(cert.indexOf('-----BEGIN CERTIFICATE-----')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
