/** Who the service says it is, in every document (OpenAPI, agent card, llms.txt, MCP). */
const SERVICE_NAME = 'Commodity data service';
const API_VERSION = '0.1.0';
const SERVICE_SUMMARY = 'Primary-source commodity observations (EIA, FRED, World Bank, CFTC, USDA, USGS) for software agents, paid per call.';

export { SERVICE_NAME, API_VERSION, SERVICE_SUMMARY };
