import { CameraCounting } from '../../src/modules/video/counting/camera-counting.js';
import { makeLine } from '../../src/modules/video/counting/rules.js';

/**
 * A camera's counting with one line, `door`, across the middle of the frame from left to right
 * (1 % hysteresis): the counting tests' walks go down through it. `stored`: counts it resumes from.
 */
export function doorCounting(stored?: { in: number; out: number }, settings: ConstructorParameters<typeof CameraCounting>[0] = {}): CameraCounting {
  const c = new CameraCounting(settings);
  c.setRule(
    makeLine({
      rule_id: 'door',
      points: [
        [0, 0.5],
        [1, 0.5],
      ],
      hysteresis: 0.01,
    }),
    stored,
  );
  return c;
}
