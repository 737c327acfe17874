import dns2 from 'dns2';

export interface LocalDns {
  /** `127.0.0.1:<port>` for a plugin's dnsServers option (inbox, brand). */
  server: string;
  txt: Map<string, string[]>;
  cname: Map<string, string>;
  mx: Map<string, { exchange: string; priority: number }[]>;
  /** Names answered with SERVFAIL. */
  failing: Set<string>;
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
        response.answers.push({ name: q!.name, class: Packet.CLASS.IN, ttl: 60, ...extra } as never);
      const known = txt.has(name) || cname.has(name) || mx.has(name);
      if (failing.has(name)) (response.header as { rcode: number }).rcode = 2;
      else if (q?.type === Packet.TYPE.TXT && txt.has(name))
        for (const data of txt.get(name)!) answer({ type: Packet.TYPE.TXT, data });
      else if (q?.type === Packet.TYPE.CNAME && cname.has(name))
        answer({ type: Packet.TYPE.CNAME, domain: cname.get(name) });
      else if (q?.type === Packet.TYPE.MX && mx.has(name))
        for (const m of mx.get(name)!) answer({ type: Packet.TYPE.MX, exchange: m.exchange, priority: m.priority });
      else if (!known) (response.header as { rcode: number }).rcode = 3; // NXDOMAIN; a known name without the type answers NODATA
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } } as never);
  const address = (server.addresses() as { udp?: { port: number } }).udp;
  if (!address) throw new Error('dns2 did not listen on UDP');
  return {
    server: `127.0.0.1:${address.port}`,
    txt,
    cname,
    mx,
    failing,
    clear() {
      txt.clear();
      cname.clear();
      mx.clear();
      failing.clear();
    },
    close: async () => void (await server.close()),
  };
}
