import dns2 from 'dns2';

export interface LocalDns {
  /** `127.0.0.1:<port>` for the sso plugin's dnsServers option. */
  server: string;
  /** TXT records answered, by name. */
  txt: Map<string, string[]>;
  /** Names answered with SERVFAIL. */
  failing: Set<string>;
  close(): Promise<void>;
}

/** A DNS server (dns2, UDP on 127.0.0.1) answering the TXT records a test sets. */
export async function startDns(): Promise<LocalDns> {
  const txt = new Map<string, string[]>();
  const failing = new Set<string>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      const name = q?.name.toLowerCase() ?? '';
      if (failing.has(name)) {
        (response.header as { rcode: number }).rcode = 2; // SERVFAIL
      } else if (q && q.type === dns2.Packet.TYPE.TXT && txt.has(name)) {
        for (const data of txt.get(name)!) response.answers.push({ name: q.name, type: dns2.Packet.TYPE.TXT, class: dns2.Packet.CLASS.IN, ttl: 60, data } as never);
      } else {
        (response.header as { rcode: number }).rcode = 3; // NXDOMAIN
      }
      send(response);
    },
  });
  const listening = await server.listen({ udp: { port: 0, address: '127.0.0.1' } } as never);
  void listening;
  const address = (server.addresses() as { udp?: { port: number } }).udp;
  if (!address) throw new Error('dns2 did not listen on UDP');
  return { server: `127.0.0.1:${address.port}`, txt, failing, close: async () => void (await server.close()) };
}
