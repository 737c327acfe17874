import dns2 from 'dns2';

/** A record a domain answer asks to publish (`records` of POST /v1/domains). */
export interface DnsRecord {
  type: string;
  name: string;
  value: string;
  priority?: number | null;
}

export interface LocalDns {
  /** `127.0.0.1:<port>` for a plugin's dnsServers option (inbox, brand). */
  server: string;
  txt: Map<string, string[]>;
  cname: Map<string, string>;
  mx: Map<string, { exchange: string; priority: number }[]>;
  /** Names answered with SERVFAIL. */
  failing: Set<string>;
  /** Publishes the records a domain answer asks for (`records` of POST /v1/domains): TXT, CNAME and MX. */
  publish(records: DnsRecord[]): void;
  clear(): void;
  close(): Promise<void>;
}

/** A DNS server (dns2, UDP on 127.0.0.1) answering the TXT, CNAME and MX records a test publishes. */
export async function startDns(): Promise<LocalDns> {
  const txt = new Map<string, string[]>();
  const cname = new Map<string, string>();
  const mx = new Map<string, { exchange: string; priority: number }[]>();
  const failing = new Set<string>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      const name = q?.name.toLowerCase() ?? '';
      const answer = (extra: Record<string, unknown>) =>
        response.answers.push({ name: q.name, class: Packet.CLASS.IN, ttl: 60, ...extra } as never);
      const known = txt.has(name) || cname.has(name) || mx.has(name);
      if (failing.has(name)) (response.header as { rcode: number }).rcode = 2;
      else if (q?.type === Packet.TYPE.TXT && txt.has(name))
        for (const data of txt.get(name)!) answer({ type: Packet.TYPE.TXT, data });
      else if (q?.type === Packet.TYPE.CNAME && cname.has(name))
        answer({ type: Packet.TYPE.CNAME, domain: cname.get(name) });
      else if (q?.type === Packet.TYPE.MX && mx.has(name))
        for (const m of mx.get(name)!) answer({ type: Packet.TYPE.MX, exchange: m.exchange, priority: m.priority });
      else if (!known) (response.header as { rcode: number }).rcode = 3; // NXDOMAIN; a known name without the type answers NODATA
      // A reply that cannot be sent is a lost datagram: the resolver times out, as with a real server.
      send(response).catch(() => undefined);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const address = (server.addresses() as { udp?: { port: number } }).udp;
  if (!address) throw new Error('dns2 did not listen on UDP');
  return {
    server: `127.0.0.1:${address.port}`,
    txt,
    cname,
    mx,
    failing,
    publish(records) {
      for (const r of records) {
        if (r.type === 'TXT') txt.set(r.name, [r.value]);
        if (r.type === 'CNAME') cname.set(r.name, r.value);
        if (r.type === 'MX') mx.set(r.name, [{ exchange: r.value, priority: r.priority ?? 10 }]);
      }
    },
    clear() {
      txt.clear();
      cname.clear();
      mx.clear();
      failing.clear();
    },
    close: async () => void (await server.close()),
  };
}
