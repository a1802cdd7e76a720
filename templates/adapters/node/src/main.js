// The worker: this adapter served by dyno's Node protocol library.
import { serve } from 'dyno-protocol';

await serve(async () => (await import('./adapter.js')).adapter);
