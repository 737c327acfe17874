import { measure, type Measurement, type Running } from '../harness.js';

/** The platform's own overhead: liveness through the whole hapi stack (logging, auth ext, envelope). */
export default async function health(service: Running): Promise<Measurement[]> {
  return [await measure('GET /v1/health', { url: `${service.url}/v1/health` })];
}
