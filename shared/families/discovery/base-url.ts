import { baseUrl } from '../../payment/challenge';
import type { HandlerRequest } from '../../http/types';

/**
 * The public base URL of discovery documents: configured, else the domain the runtime received the
 * request on. Never the Host header (client-controlled; these documents are cached).
 */
const baseUrlOf = ({ services, domainName }: Pick<HandlerRequest, 'services' | 'domainName'>): string => baseUrl(services.config.PUBLIC_BASE_URL, domainName);

export { baseUrlOf };
