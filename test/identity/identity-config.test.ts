import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfig, ConfigError } from '../../src/config/load.js';

describe('identity configuration', () => {
  it('has the spec defaults and resolves an empty watchlist_dir to <data_dir>/watchlists', () => {
    const c = loadConfig({ env: {}, cwd: '/srv' });
    assert.equal(c.identity.enabled, true);
    assert.equal(c.identity.cluster_threshold, 0.6);
    assert.equal(c.identity.watchlist_dir, join('/srv', 'data', 'watchlists'));
    assert.equal(c.identity.alert_threshold, 0.5);
    assert.deepEqual(c.identity.alert_thresholds, {});
  });

  it('per-watchlist alert thresholds come from the environment as JSON, checked against the schema', () => {
    const c = loadConfig({ env: { VIGIL_IDENTITY_ALERT_THRESHOLDS: '{"vip": 0.45, "lobby": 0.7}' } });
    assert.deepEqual(c.identity.alert_thresholds, { vip: 0.45, lobby: 0.7 });
    assert.throws(
      () => loadConfig({ env: { VIGIL_IDENTITY_ALERT_THRESHOLDS: '{"vip": 1.5}' } }),
      (e: unknown) => e instanceof ConfigError && /alert_thresholds\.vip/.test(e.message),
    );
    assert.throws(() => loadConfig({ env: { VIGIL_IDENTITY_ALERT_THRESHOLDS: 'vip=0.4' } }), ConfigError);
    assert.throws(() => loadConfig({ env: {}, overrides: { identity: { alert_thresholds: { 'bad name': 0.4 } } } }), ConfigError);
  });
});
