/**
 * Flushes every live TrackingService when the process ends: on exit (synchronously) and on
 * SIGINT/SIGTERM/SIGHUP. A signal is re-raised after the flush when nobody else handles it, so the
 * process still ends the way it would have without the tracker.
 */
import { finalFlush } from './final-flush.js';
import type { StoreAccess } from '../store/access.js';
import type { TrackingService } from './service.js';

const live = new Set<TrackingService<StoreAccess>>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

function flushAll(reason: string): void {
  for (const service of live) finalFlush(service, reason);
}

function onSignal(signal: NodeJS.Signals): void {
  flushAll(signal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Registers a service for the exit flush; returns the function that unregisters it. */
export function flushOnExit(service: TrackingService<StoreAccess>): () => void {
  live.add(service);
  if (!installed) {
    installed = true;
    process.on('exit', () => flushAll('exit'));
    for (const signal of SIGNALS) process.once(signal, onSignal);
  }
  return () => {
    live.delete(service);
  };
}
