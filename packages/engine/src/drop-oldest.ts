/**
 * Deletes the `count` oldest keys of a map (insertion order) in one pass. Dropping one key per
 * insert instead would walk the trail of deleted slots at the map's front again on every insert.
 */
export function dropOldest<K, V>(map: Map<K, V>, count: number): void {
  let dropped = 0;
  for (const key of map.keys()) {
    if (dropped++ >= count) return;
    map.delete(key);
  }
}
