#!/usr/bin/env bash
# Run the examples end to end on a GPU host: `kiln serve` (embedded SQLite, local worker on GPU 0),
# then each example with --tune against it (EXAMPLES="…" picks some). Results: examples/*.json (copied to $OUT when set).
set -u
export KILN_DATA_DIR=${KILN_DATA_DIR:-/tmp/kiln-examples} KILN_PORT=${KILN_PORT:-8797} KILN_TUNE_LIMIT=${KILN_TUNE_LIMIT:-6}
python3 -m service.cli.main serve > "${OUT:-/tmp}/examples_serve.log" 2>&1 &
serve=$!
python3 - <<PY
import time, httpx
for _ in range(240):
    try:
        if httpx.get("http://127.0.0.1:$KILN_PORT/readyz", timeout=1).status_code == 200: break
    except httpx.TransportError: pass
    time.sleep(0.5)
PY
export KILN_SERVER_URL="http://127.0.0.1:$KILN_PORT" KILN_TOKEN=$(cat "$KILN_DATA_DIR/admin.token")
for ex in ${EXAMPLES:-bert_encoder_layer resnet_bottleneck}; do
  timeout "${EXAMPLE_TIMEOUT:-300}" python3 "examples/$ex.py" --tune; echo "$ex rc=$?"
  [ -n "${OUT:-}" ] && cp "examples/$ex.json" "$OUT/" 2>/dev/null
done
kill $serve; wait $serve 2>/dev/null
