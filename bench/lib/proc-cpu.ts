import { readdirSync, readFileSync } from 'node:fs';

/** CPU time a process has run, from the kernel's per-thread run time (ns, exact; Linux only). */
export interface ProcCpu {
  /** Every live thread: the event loop, inference workers, libuv's pool, GC helpers. */
  totalMs: number;
  /** The main thread alone (its task id is the pid): the event loop, where the metrics code runs. */
  mainMs: number;
}

const runNs = (pid: number, tid: string): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // the thread ended between listing and reading
  }
};

export function procCpu(pid: number): ProcCpu {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) total += runNs(pid, tid);
  return { totalMs: total / 1e6, mainMs: runNs(pid, String(pid)) / 1e6 };
}
