import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import { describeStoreConformance } from './store-conformance.js';

describeStoreConformance('clickhouse (chdb)', () =>
  createClickHouseStore({ executor: createChdbExecutor() }),
);
