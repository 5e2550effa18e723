import { Hono } from 'hono';
import type { DetectingStore } from '../detect/index.js';
import type { Store } from '../store/index.js';
import type { DetectionInfo } from './types.js';

/** `GET /detection`: whether detection runs and which services send no arguments. */
export function detectionRoutes(store: Store): Hono {
  const app = new Hono();
  const detector = (store as Partial<DetectingStore>).detector;
  app.get('/detection', (c) =>
    c.json({
      enabled: detector !== undefined,
      uncaptured: detector?.uncapturedServices() ?? [],
    } satisfies DetectionInfo),
  );
  return app;
}
