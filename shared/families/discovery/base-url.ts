import { resourceUrl } from '../../payment/challenge';
import type { HandlerRequest } from '../../http/types';

/**
 * The public base URL: configured, else the request's own host when it is a well-formed host
 * name (a Host header is client-controlled and is never echoed as it came).
 */
const baseUrlOf = ({ services, headers }: Pick<HandlerRequest, 'services' | 'headers'>): string =>
  resourceUrl(services.config.PUBLIC_BASE_URL, headers, undefined, '', '');

export { baseUrlOf };
