#!/usr/bin/env bash
# Runs `npm run sandbox` over signed HTTP and over Socket Mode (no terminal: the script only) and
# checks that both print the same conversation. Job ids, durations, clock times (the two runs may
# straddle a minute), message timestamps in permalinks and the prompt fences' random ids differ from run to run
# and are masked; the header (ports, key prefix, transport) is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
transcript() { sed -n '/^Scripted conversation/,$p' "$1" | sed -E 's/job_[a-z0-9]+/job_…/g; s#mintlify/agent-[a-z0-9]+#mintlify/agent-…#g; s#mintlify-agent-[a-z0-9]+#mintlify-agent-…#g; s/st_[0-9a-f]{16}/st_…/g; s/took [0-9]+(ms|s|m [0-9]+s|m)/took …/g; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}/YYYY-MM-DD HH:MM/g; s#/archives/([A-Z0-9]+)/p[0-9]+#/archives/\1/p…#g; s/(slack_[a-z_]+|reader_[a-z_]+|build_log)_[0-9a-f]{16}/\1_…/g; s/(slackˍ[a-zˍ]+|readerˍ[a-zˍ]+|buildˍlog)ˍ[0-9a-f]{16}/\1ˍ…/g'; }
npm run -s sandbox </dev/null >"$out/http.txt" 2>&1 || { cat "$out/http.txt"; echo "sandbox (HTTP) failed" >&2; exit 1; }
npm run -s sandbox -- --socket-mode </dev/null >"$out/socket.txt" 2>&1 || { cat "$out/socket.txt"; echo "sandbox (Socket Mode) failed" >&2; exit 1; }
grep -q 'Socket Mode over ws://' "$out/socket.txt" || { cat "$out/socket.txt"; echo "the Socket Mode sandbox did not say it used the socket" >&2; exit 1; }
if ! diff <(transcript "$out/http.txt") <(transcript "$out/socket.txt"); then
  echo "sandbox: the Socket Mode transcript differs from the HTTP one (diff above: < HTTP, > Socket Mode)" >&2
  exit 1
fi
echo "sandbox: the same $(transcript "$out/http.txt" | wc -l)-line transcript over signed HTTP and over Socket Mode"
