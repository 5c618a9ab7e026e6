// What the figures were measured on: they only mean something next to the machine and the date.
import os from 'node:os';

/** One line per fact, for the report header. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg().map((x) => x.toFixed(2)).join(' '),
  };
}
