// The hotspot page: from the hourly rollup and the partial hours' spans, its keys picked through
// the totals (pruned or exact pages), by hotspot key or by the names.

export { queryHotspots } from './query.js';
