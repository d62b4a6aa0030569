#!/bin/sh
# Container entrypoint (run under tini).
#
# With no arguments: when NODE_TOR_ENABLED is true (the image default), write the node's onion service key
# into $NODE_DATA_DIR/tor/hidden_service, start tor in the background (SOCKS5 on 127.0.0.1:9050, the onion
# service forwarding port 80 to the node), then replace this shell with wallet-node.
# With arguments: run them instead (e.g. `docker run --rm -it <image> sh`).
set -eu

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

DATA_DIR="${NODE_DATA_DIR:-/data}"
PORT="${NODE_PORT:-8080}"
# Everything the node and tor write under the data directory is private to the node user.
umask 077

case "$(printf '%s' "${NODE_TOR_ENABLED:-true}" | tr '[:upper:]' '[:lower:]')" in
  1 | true | yes | on) tor_enabled=true ;;
  0 | false | no | off) tor_enabled=false ;;
  *)
    echo "entrypoint: NODE_TOR_ENABLED: expected true or false, got \"${NODE_TOR_ENABLED}\"" >&2
    exit 2
    ;;
esac
# The node reads the same variable: it announces its .onion address only when Tor serves it.
export NODE_TOR_ENABLED="$tor_enabled"

if [ "$tor_enabled" = true ]; then
  TOR_DIR="$DATA_DIR/tor"
  HS_DIR="$TOR_DIR/hidden_service"
  mkdir -p "$TOR_DIR/data" "$HS_DIR"
  chmod 700 "$TOR_DIR" "$TOR_DIR/data" "$HS_DIR"

  # Creates the identity on first start (or restores it from RESTORE / RESTORE_FILE) and writes its onion key.
  onion="$(node /app/docker/write-onion-keys.js "$HS_DIR")"

  cat > "$TOR_DIR/torrc" <<TORRC
# Written by the container entrypoint on every start; edits are lost.
SocksPort 127.0.0.1:9050
DataDirectory $TOR_DIR/data
HiddenServiceDir $HS_DIR
HiddenServicePort 80 127.0.0.1:$PORT
Log notice stdout
TORRC

  echo "entrypoint: starting tor for $onion"
  # The seed phrase must not reach tor's environment.
  env -u RESTORE -u RESTORE_FILE tor -f "$TOR_DIR/torrc" --defaults-torrc /dev/null &
fi

# --no-node-snapshot: isolated-vm (third-party plugins) asks for it on Node 20 and later (docs/plugins.md, Running).
exec node --no-node-snapshot /app/dist/app/wallet-node.js
