import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  key: string;
  cert: string;
}

const run = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed RSA key and certificate made with openssl; `expired` gives one that ended in 2020. */
export function makeKeyPair(cn = 'idp.test', opts: { expired?: boolean } = {}): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'pw-cert-'));
  try {
    if (!opts.expired) {
      run(
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          'k.pem',
          '-out',
          'c.pem',
          '-days',
          '30',
          '-subj',
          `/CN=${cn}`,
        ],
        dir,
      );
    } else {
      run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', `/CN=${cn}`], dir);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'serial'), '01\n');
      writeFileSync(
        join(dir, 'ca.cnf'),
        `[ca]\ndefault_ca=CA\n[CA]\ndatabase=${dir}/index.txt\nnew_certs_dir=${dir}\nserial=${dir}/serial\ndefault_md=sha256\npolicy=pol\n[pol]\ncommonName=supplied\n`,
      );
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
          '-startdate',
          '20200101000000Z',
          '-enddate',
          '20200102000000Z',
          '-out',
          'c.pem',
        ],
        dir,
      );
    }
    const cert = readFileSync(join(dir, 'c.pem'), 'utf8');
    return {
      key: readFileSync(join(dir, 'k.pem'), 'utf8'),
      cert: cert.slice(cert.indexOf('-----BEGIN CERTIFICATE-----')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
