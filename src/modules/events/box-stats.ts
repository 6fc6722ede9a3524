import { availableParallelism, freemem, loadavg, totalmem } from 'node:os';
import type { Metrics } from '../../core/metrics.js';
import type { MqttPublisher } from './mqtt-mirror.js';

/**
 * The box sections of `<prefix>/stats` (Frigate's stats topic is the model): service
 * uptime and version, CPU use of the daemon since the last report, memory, and the mean
 * run time of each model. Cameras are added by the video module.
 */
export function registerBoxStats(mqtt: MqttPublisher, metrics: Metrics, version: string): void {
  let last = { at: performance.now(), cpu: process.cpuUsage() };
  mqtt.statsSource('service', () => ({ version, uptime_s: Math.round(process.uptime()), updated_at: new Date().toISOString() }));
  mqtt.statsSource('cpu', () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const usedMs = (cpu.user - last.cpu.user + cpu.system - last.cpu.system) / 1000;
    const elapsed = now - last.at;
    last = { at: now, cpu };
    // Percent of the whole box (all cores), as top shows a process divided by the core count.
    const percent = elapsed > 0 ? (100 * usedMs) / elapsed / availableParallelism() : 0;
    return { percent: Math.round(percent * 10) / 10, load_1m: Math.round(loadavg()[0]! * 100) / 100, cores: availableParallelism() };
  });
  mqtt.statsSource('memory', () => {
    const m = process.memoryUsage();
    return { rss_mb: mb(m.rss), heap_used_mb: mb(m.heapUsed), box_used_percent: Math.round((1000 * (totalmem() - freemem())) / totalmem()) / 10 };
  });
  const announced = new Set<string>();
  mqtt.statsSource('inference_ms', () => {
    const speeds = metrics.inferenceSpeeds();
    // One Home Assistant sensor per model that has run, announced the first time it appears.
    for (const model of Object.keys(speeds)) {
      if (announced.has(model)) continue;
      announced.add(model);
      mqtt.publishDiscovery('sensor', `inference_${model}`, {
        ...diagnostic(`Inference ${model}`, `{{ value_json.inference_ms['${model}'] }}`),
        unit_of_measurement: 'ms',
      });
    }
    return speeds;
  });
  const diagnostic = (name: string, valueTemplate: string) => ({
    name,
    state_topic: mqtt.stateTopic('stats'),
    value_template: valueTemplate,
    state_class: 'measurement',
    entity_category: 'diagnostic',
  });
  mqtt.publishDiscovery('sensor', 'cpu', { ...diagnostic('CPU', '{{ value_json.cpu.percent }}'), unit_of_measurement: '%' });
  mqtt.publishDiscovery('sensor', 'memory', { ...diagnostic('Memory', '{{ value_json.memory.rss_mb }}'), unit_of_measurement: 'MB' });
  mqtt.publishDiscovery('sensor', 'uptime', { ...diagnostic('Uptime', '{{ value_json.service.uptime_s }}'), unit_of_measurement: 's', state_class: 'total_increasing' });
}

function mb(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}
