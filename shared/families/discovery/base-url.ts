import type { HandlerRequest } from '../../http/types';

/** The public base URL: configured, else the request's own host (API Gateway sets x-forwarded-proto). */
const baseUrlOf = ({ services, headers }: Pick<HandlerRequest, 'services' | 'headers'>): string =>
  services.config.PUBLIC_BASE_URL ?? `${headers['x-forwarded-proto'] ?? 'http'}://${headers.host ?? '127.0.0.1'}`;

export { baseUrlOf };
