import face from './face/plugin.js';
import document from './document/plugin.js';
import person from './person/plugin.js';
import liveness from './liveness/plugin.js';
import video from './video/plugin.js';
import events from './events/plugin.js';
import identity from './identity/plugin.js';
import admin from './admin/routes.js';
import type { VigilModule } from '../core/module.js';

/**
 * The eight modules, each written against the contract in core/module.ts, in start order
 * (stop runs in reverse). Events come before the producers' traffic starts; admin last so
 * it can read everyone's status.
 */
export const MODULES: VigilModule[] = [events, face, document, person, liveness, identity, video, admin];
