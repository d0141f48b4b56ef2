#!/usr/bin/env bash
# The install size of the core and of each extra (docs/release.md#install-size): build the
# wheel, then one fresh venv per install; prints the KiB each adds to an empty venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
WORK="${WORK:-/tmp/amk-install-sizes}"
rm -rf "$WORK" && mkdir -p "$WORK"
"$PYTHON" -m venv "$WORK/tools" && "$WORK/tools/bin/pip" install -q build
"$WORK/tools/bin/python" -m build --wheel --outdir "$WORK/dist" . >/dev/null
WHEEL="$(ls "$WORK"/dist/*.whl)"
for extra in core embedded local console all; do
  venv="$WORK/venv-$extra"
  "$PYTHON" -m venv "$venv"
  before=$(du -sk "$venv" | cut -f1)
  spec="$WHEEL"; [ "$extra" = core ] || spec="$WHEEL[$extra]"
  "$venv/bin/pip" install -q "$spec"
  after=$(du -sk "$venv" | cut -f1)
  echo "$extra $((after - before)) KiB"
done
