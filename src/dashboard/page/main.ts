// The dashboard's only script (served as /assets/page/main.js, a module): wires the copy
// buttons and draws the market charts. Every page works without it except the charts.
import { drawCharts } from './charts.js';
import { bindCopyButtons } from './copy.js';

bindCopyButtons(document);
const charts = document.getElementById('charts');
if (charts) void drawCharts(charts);
