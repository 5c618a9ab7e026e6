// BENCHMARKS.md from one run: the machine, then every figure with its value, target, verdict
// and the command that produced it, then the details each figure wants to show.

/**
 * Render the report. `figures` are `{ id, title, rows: [{ name, value, unit, target, verdict, command }], notes: [], wallSeconds }`;
 * `times` are `{ id, title, seconds, setup? }` in the order they ran; `status` is set on a partial report:
 * `{ partial: true, missing: [ids], running?: id, interrupted?: id }`.
 */
export function renderReport({ machine, mode, figures, totalSeconds, invocation, loadAverageEnd, times = [], status }) {
  const lines = [];
  lines.push('# msnap benchmarks', '');
  if (status?.partial) {
    const missing = status.missing.length ? `missing: figure(s) ${status.missing.join(', ')}` : 'no figure missing';
    const where =
      status.interrupted !== undefined ? `The run was stopped during figure ${status.interrupted}` :
      status.running !== undefined ? `Written when figure ${status.running} started: the run was still going then, or was stopped during it` :
      'Written between figures: the run was still going then, or was stopped';
    lines.push(`> **Partial report.** ${where}; ${missing}. Every figure below finished and is kept as measured; a finished run writes the final report and removes this file.`, '');
  }
  lines.push(
    `Measured by \`${invocation}\` (${mode} mode) on ${machine.date.slice(0, 10)} (${machine.date}), ` +
      `${totalSeconds.toFixed(0)} s ${status?.partial ? 'so far' : 'in all'}. Every figure compares against a baseline or a bound measured in the same run.`,
    '',
  );
  lines.push('| Machine | |', '|---|---|');
  lines.push(`| CPU | ${machine.cores} cores, ${machine.cpuModel} |`);
  lines.push(`| Memory | ${machine.memoryGb} GB |`);
  lines.push(`| Node | ${machine.node} |`);
  lines.push(`| OS | ${machine.platform} |`);
  lines.push(`| Load average at start | ${machine.loadAverage} |`);
  if (loadAverageEnd) lines.push(`| Load average at the end | ${loadAverageEnd} |`);
  lines.push(`| Source | ${machine.source} |`, '');
  lines.push(
    'Every figure below comes from this one run; a later run replaces the whole file. The 2 cores were shared with other ' +
      "developers' builds and tests while it ran (see the load averages), so absolute rates drift from run to run: the ratios " +
      'against a baseline measured alongside are the figures that hold. For that reason figure 1 repeats its export and reports ' +
      'the worst run, and figure 2 alternates several rounds and reports the medians with the spread.',
    '',
  );

  lines.push('## Summary', '');
  lines.push('| # | Figure | Value | Target | Result |', '|---|---|---|---|---|');
  for (const f of figures) {
    if (f.error) {
      lines.push(`| ${f.id} | ${f.title} | not measured | | ERROR |`);
      continue;
    }
    for (const r of f.rows) {
      const verdict = r.verdict ? (r.verdict.pass ? 'pass' : `**FAIL**${Number.isFinite(r.verdict.miss) ? ` (${(r.verdict.miss * 100).toFixed(0)}% off)` : ''}`) : 'info';
      lines.push(`| ${f.id} | ${r.name} | ${formatValue(r.value)}${r.unit ?? ''} | ${r.target ?? ''} | ${verdict} |`);
    }
  }
  lines.push('');

  if (times.length) {
    lines.push('## Wall time per figure', '');
    lines.push('| # | Figure | Wall |', '|---|---|---|');
    for (const t of times) lines.push(`| ${t.setup ? '' : t.id} | ${t.title} | ${t.seconds.toFixed(1)} s |`);
    lines.push(`| | All (${status?.partial ? 'so far' : 'the whole run'}) | ${totalSeconds.toFixed(1)} s |`, '');
  }

  for (const f of figures) {
    lines.push(`## ${f.id}. ${f.title}`, '');
    if (f.wallSeconds !== undefined) lines.push(`Wall time: ${f.wallSeconds.toFixed(1)} s.`, '');
    if (f.error) {
      lines.push('Not measured: the run failed.', '', '```', f.error, '```', '');
      continue;
    }
    if (f.method) lines.push(f.method, '');
    lines.push('| Figure | Value | Target | Result |', '|---|---|---|---|');
    for (const r of f.rows) {
      const verdict = r.verdict ? (r.verdict.pass ? 'pass' : '**FAIL**') : 'info';
      lines.push(`| ${r.name} | ${formatValue(r.value)}${r.unit ?? ''} | ${r.target ?? ''} | ${verdict} |`);
    }
    lines.push('');
    if (f.commands?.length) {
      lines.push('Commands:', '', '```sh', ...f.commands, '```', '');
    }
    for (const note of f.notes ?? []) lines.push(`- ${note}`);
    if (f.notes?.length) lines.push('');
  }
  return lines.join('\n');
}

/** Numbers with sensible precision: ratios to 3 decimals, large counts with separators. */
export function formatValue(v) {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) || Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 100) return v.toFixed(1);
  if (Math.abs(v) >= 10) return v.toFixed(2);
  return v.toFixed(3);
}
