import { useEffect, useMemo } from 'preact/hooks';
import { createResource, type Resource, type ResourceOptions } from './resource.js';

/** A resource owned by a component: created on mount, disposed (request aborted) on unmount. */
export function useResource<T>(url: () => string | null, options?: ResourceOptions): Resource<T> {
  const resource = useMemo(() => createResource<T>(url, options), []);
  useEffect(() => () => resource.dispose(), [resource]);
  return resource;
}
