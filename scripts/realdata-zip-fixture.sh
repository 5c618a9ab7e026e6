#!/bin/sh
# fixtures/realdata/zip64/BTCUSDT-1s-2026-04-13.zip: three 1s klines zipped by Info-ZIP's zip with
# Zip64 records forced (-fz), so src/realdata/zip-archive.ts is tested against an archive another
# writer made, with the Zip64 sizes and end records a large Binance file would carry.
# Run from the repository's root: sh scripts/realdata-zip-fixture.sh (needs zip 3.0).
set -eu
out=fixtures/realdata/zip64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=BTCUSDT-1s-2026-04-13
cat > "$work/$name.csv" <<'CSV'
1776038400000,70000.00,70001.00,69999.00,70000.50,1.25000000,1776038400999,87500.62500000,12,0.61000000,42700.30500000,0
1776038401000,70000.50,70002.00,70000.00,70001.75,0.50000000,1776038401999,35000.87500000,7,0.20000000,14000.35000000,0
1776038402000,70001.75,70003.00,70001.00,70002.25,2.00000000,1776038402999,140004.50000000,20,1.00000000,70002.25000000,0
CSV
touch -t 202604130000 "$work/$name.csv"
mkdir -p "$out"
rm -f "$out/$name.zip"
(cd "$work" && TZ=UTC zip -q -X -fz "$name.zip" "$name.csv")
cp "$work/$name.zip" "$out/$name.zip"
