import type { LoopAction } from '../../api/types.js';
import { apiUrl } from '../models/api.js';
import { ACTIONS, action, clearFilters, search, service, tool } from '../models/filters.js';
import { range, rangeParams } from '../models/range.js';
import { useResource } from '../models/use-resource.js';

interface Facets {
  services: string[];
  tools: string[];
}

function Select(props: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
}) {
  const options =
    props.value && !props.options.includes(props.value)
      ? [props.value, ...props.options]
      : props.options;
  return (
    <label class="field">
      <span>{props.label}</span>
      <select
        aria-label={props.label}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="">all</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Service, tool, action and free-text filters shared by every page. */
export function FilterBar() {
  const facets = useResource<Facets>(() => apiUrl('facets', rangeParams(range.value)));
  const data = facets.state.value.data;
  const active = service.value || tool.value || action.value || search.value;
  return (
    <div class="filter-bar">
      <Select
        label="service"
        value={service.value}
        options={data?.services ?? []}
        onChange={(v) => {
          service.value = v;
        }}
      />
      <Select
        label="tool"
        value={tool.value}
        options={data?.tools ?? []}
        onChange={(v) => {
          tool.value = v;
        }}
      />
      <Select
        label="action"
        value={action.value}
        options={ACTIONS}
        onChange={(v) => {
          action.value = v as LoopAction | '';
        }}
      />
      <label class="field grow">
        <span>search</span>
        <input
          aria-label="search"
          type="search"
          placeholder="scope, signature or tool"
          value={search.value}
          onInput={(e) => {
            search.value = e.currentTarget.value;
          }}
        />
      </label>
      {active && (
        <button type="button" class="link" onClick={clearFilters}>
          clear filters
        </button>
      )}
    </div>
  );
}
