import { Type, type Static } from 'typebox';
import { ServerSection } from './sections/server.js';
import { FaceSection } from './sections/face.js';
import { DocumentSection } from './sections/document.js';
import { LivenessSection } from './sections/liveness.js';
import { PersonSection } from './sections/person.js';
import { VideoSection } from './sections/video.js';
import { EventsSection } from './sections/events.js';
import { IdentitySection } from './sections/identity.js';
import { MqttSection } from './sections/mqtt.js';
import { LimitsSection } from './sections/limits.js';
import { AuthSection } from './sections/auth.js';

/**
 * The one configuration schema. Every key has a default and a description;
 * unknown keys are rejected (additionalProperties false at every level), and the
 * environment overrides are derived from these paths (see env-overrides.ts).
 */
export const ConfigSchema = Type.Object(
  {
    server: ServerSection,
    face: FaceSection,
    document: DocumentSection,
    liveness: LivenessSection,
    person: PersonSection,
    video: VideoSection,
    events: EventsSection,
    identity: IdentitySection,
    mqtt: MqttSection,
    limits: LimitsSection,
    auth: AuthSection,
  },
  { additionalProperties: false },
);

export type VigilConfig = Static<typeof ConfigSchema>;

/** The seven modules of the spec, in start order; /admin/config reports exactly these keys. */
export const MODULE_NAMES = ['face', 'document', 'liveness', 'person', 'video', 'events', 'identity'] as const;
export type ModuleName = (typeof MODULE_NAMES)[number];
