/** Lambda entry of every ingestion function (one per registry source, told apart by SOURCE_ID). */
import { createIngestHandler } from '../shared/sources/ingest-handler';

export const handler = createIngestHandler();
