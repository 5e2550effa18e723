import { createChdbExecutor } from '../src/store/clickhouse/chdb-executor.js';
import { createClickHouseStore } from '../src/store/clickhouse.js';
import { describeStoreConformance } from './store-conformance.js';

describeStoreConformance('clickhouse (chdb)', () =>
  createClickHouseStore({ executor: createChdbExecutor() }),
);
