#!/usr/bin/env bash
# The README, walked: every ```sh block of README.md is run as written, in the
# order it appears, in one shell (what a block exports, the next one sees),
# and the walk fails on the first command that exits non-zero. So the guide's
# commands, and the examples/ they use, stay true.
#
#   * A block preceded by `<!-- not-run: REASON -->` is skipped, and the test
#     says which and why (the quick start builds, some steps need root, a
#     second user or a Kubernetes cluster). A marker before anything but an
#     ```sh block, a fence of another language than sh / console / yaml /
#     text, or an unclosed fence fails the test.
#   * A ```console block right after a run ```sh block (nothing but blank
#     lines between) is that block's output: each of its lines must appear in
#     the block's output, in order. Fields are compared split on whitespace;
#     durations (`2s`, `5m3s`) match any duration, a name ending in a 5-letter
#     generated suffix (`job-hello-179e9`) matches any such suffix, and a line
#     ending in `...` matches any line that starts with what precedes it.
#   * A ```yaml block whose first line is `# PATH: ...` must be the file PATH
#     as it is.
#
# The sandbox: blocks run in a directory that holds links to the checkout's
# top-level entries (so `examples/...` resolves and new files land in the
# sandbox), with HOME a fresh directory (`~/kuota` is the sandbox's) and an
# environment of PATH, HOME and LANG only. `kuota` is the one given; `kuotad`
# is a wrapper around the one given that adds `--port 0` unless the block
# names a port (parallel test runs must not share 8080) and records its pid.
# At the end every kuotad the walk started, and every process of its pods
# (they inherit kuotad's environment), is killed.
# Usage: readme_walk_test.sh PATH/TO/kuotad PATH/TO/kuota [REPO_ROOT]
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota [REPO_ROOT]}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota [REPO_ROOT]}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "${3:-$HERE/../..}" && pwd)
KUOTAD=$(cd "$(dirname "$KUOTAD")" && pwd)/$(basename "$KUOTAD")
KUOTA=$(cd "$(dirname "$KUOTA")" && pwd)/$(basename "$KUOTA")
command -v kubectl >/dev/null || { echo "FAIL: kubectl not found on PATH"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not found on PATH"; exit 1; }

TMP=$(mktemp -d)
cleanup() {
  local p e
  for p in $(cat "$TMP/kuotad.pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    if grep -qzxF "KUOTA_README_WALK=$TMP" "$e" 2>/dev/null; then kill -9 "$p" 2>/dev/null; fi
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/home" "$TMP/bin" "$TMP/blocks" "$TMP/repo"

# --- the README's blocks -----------------------------------------------------
cat >"$TMP/walk.py" <<'PY'
import os, re, sys

FENCE = re.compile(r'^```(\S*)\s*$')
MARK = re.compile(r'^<!--\s*not-run:\s*(.+?)\s*-->\s*$')
LANGS = {'sh', 'console', 'yaml', 'text'}

def parse(readme):
    """Fenced blocks as dicts: lang, line (1-based, the opening fence), body,
    skip (the not-run reason or None), follows (index of the block this one
    directly follows, blank lines only between). Errors as a list."""
    lines = open(readme, encoding='utf-8').read().split('\n')
    blocks, errors = [], []
    pending_mark = None  # (line, reason) of a not-run marker awaiting its block
    last_end = None      # line index where the last block closed
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARK.match(line)
        if m:
            pending_mark = (i + 1, m.group(1))
            i += 1
            continue
        f = FENCE.match(line)
        if not f:
            if line.strip() and pending_mark:
                errors.append(f'README.md:{pending_mark[0]}: a not-run marker must come right before a ```sh block')
                pending_mark = None
            i += 1
            continue
        lang = f.group(1)
        start = i
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != '```':
            j += 1
        if j >= len(lines):
            errors.append(f'README.md:{start + 1}: unclosed ``` fence')
            break
        if lang not in LANGS:
            errors.append(f'README.md:{start + 1}: fence language {lang!r}: use sh (run), console (output), '
                          f'yaml or text')
        follows = None
        if blocks and last_end is not None and all(not l.strip() for l in lines[last_end + 1:start]):
            follows = len(blocks) - 1
        skip = None
        if pending_mark:
            if lang != 'sh':
                errors.append(f'README.md:{pending_mark[0]}: a not-run marker must come right before a ```sh block')
            skip = pending_mark[1]
            pending_mark = None
        blocks.append({'lang': lang, 'line': start + 1, 'body': '\n'.join(lines[start + 1:j]) + '\n',
                       'skip': skip, 'follows': follows})
        last_end = j
        i = j + 1
    return blocks, errors

DURATION = re.compile(r'^\d+(\.\d+)?(ms|s|m|h|d)(\d+(s|m|h))?$')
GENERATED = re.compile(r'^(.+-)[0-9a-z]{5}$')

def field_matches(want, got):
    if want == got:
        return True
    if DURATION.match(want) and DURATION.match(got):
        return True
    w, g = GENERATED.match(want), GENERATED.match(got)
    return bool(w and g and w.group(1) == g.group(1))

def line_matches(want, got):
    wf, gf = want.split(), got.split()
    if wf and wf[-1] == '...':
        wf = wf[:-1]
        if len(gf) < len(wf):
            return False
        gf = gf[:len(wf)]
    return len(wf) == len(gf) and all(field_matches(w, g) for w, g in zip(wf, gf))

def cmd_parse(readme, root, outdir):
    blocks, errors = parse(readme)
    for e in errors:
        print(f'FAIL {e}')
    runs = []
    for n, b in enumerate(blocks):
        if b['lang'] == 'sh':
            if b['skip']:
                print(f"skip README.md:{b['line']}: not run: {b['skip']}")
                continue
            name = f'{n:03d}'
            with open(os.path.join(outdir, name + '.sh'), 'w') as f:
                f.write(b['body'])
            with open(os.path.join(outdir, name + '.line'), 'w') as f:
                f.write(str(b['line']))
            runs.append(name)
        elif b['lang'] == 'console' and b['follows'] is not None:
            prev = blocks[b['follows']]
            if prev['lang'] == 'sh' and not prev['skip']:
                with open(os.path.join(outdir, f"{b['follows']:03d}.expect"), 'w') as f:
                    f.write(b['body'])
        elif b['lang'] == 'yaml':
            first = b['body'].split('\n', 1)[0]
            m = re.match(r'^# ([\w./-]+):', first)
            if m:
                path = os.path.join(root, m.group(1))
                if not os.path.isfile(path):
                    print(f"FAIL README.md:{b['line']}: the yaml block names {m.group(1)}, which does not exist")
                    errors.append('yaml')
                elif open(path, encoding='utf-8').read() != b['body']:
                    print(f"FAIL README.md:{b['line']}: the yaml block differs from {m.group(1)}")
                    errors.append('yaml')
                else:
                    print(f"ok   README.md:{b['line']}: the yaml block is {m.group(1)} as it is")
    with open(os.path.join(outdir, 'list'), 'w') as f:
        f.write('\n'.join(runs) + '\n')
    return 1 if errors else 0

def cmd_check(expect_file, out_file, line):
    want = [l for l in open(expect_file, encoding='utf-8').read().split('\n') if l.strip()]
    got = open(out_file, encoding='utf-8', errors='replace').read().split('\n')
    pos = 0
    for w in want:
        k = pos
        while k < len(got) and not line_matches(w, got[k]):
            k += 1
        if k == len(got):
            print(f'FAIL README.md:{line}: the output shown beneath the block is not what it printed')
            print(f'     | missing (in order): {w}')
            for g in got:
                print(f'     | got: {g}')
            return 1
        pos = k + 1
    print(f'ok   README.md:{line}: printed the output shown beneath it ({len(want)} lines)')
    return 0

if __name__ == '__main__':
    if sys.argv[1] == 'parse':
        sys.exit(cmd_parse(*sys.argv[2:5]))
    sys.exit(cmd_check(*sys.argv[2:5]))
PY
python3 "$TMP/walk.py" parse "$ROOT/README.md" "$ROOT" "$TMP/blocks"
parse_rc=$?
mapfile -t RUNS < <(grep . "$TMP/blocks/list")
if (( ${#RUNS[@]} == 0 )); then echo "FAIL README.md has no block to run"; exit 1; fi

# --- the sandbox -----------------------------------------------------------------
shopt -s dotglob
for entry in "$ROOT"/*; do
  base=$(basename "$entry")
  case "$base" in .git|build|build-*) continue ;; esac
  ln -s "$entry" "$TMP/repo/$base"
done
shopt -u dotglob
# `../shared` beside the checkout, as the README assumes.
[[ -d "$ROOT/../shared" ]] && ln -s "$(cd "$ROOT/../shared" && pwd)" "$TMP/shared"
ln -s "$KUOTA" "$TMP/bin/kuota"
cat >"$TMP/bin/kuotad" <<SH
#!/usr/bin/env bash
echo \$\$ >>"$TMP/kuotad.pids"
args=("\$@")
[[ " \$* " == *" --port "* || " \$* " == *" --port="* ]] || args+=(--port 0)
exec "$KUOTAD" "\${args[@]}"
SH
chmod +x "$TMP/bin/kuotad"

# One shell runs every block, each from its own file, stdin closed; under
# errexit the first failing command ends it, and $TMP/done says how far it got.
cat >"$TMP/driver.sh" <<SH
set -e -o pipefail
cd "$TMP/repo"
for n in ${RUNS[*]}; do
  echo "\$n" >"$TMP/current"
  start=\$(date +%s.%N)
  source "$TMP/blocks/\$n.sh" <"/dev/null" >"$TMP/blocks/\$n.out" 2>&1
  echo "\$n \$(awk -v s="\$start" -v e="\$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" >>"$TMP/done"
done
SH
T0=$(date +%s.%N)
env -i HOME="$TMP/home" PATH="$TMP/bin:$PATH" LANG=C.UTF-8 KUOTA_README_WALK="$TMP" \
  ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
  timeout 150 bash "$TMP/driver.sh"
walk_rc=$?

PASS=0
FAIL=0
declare -A SECS
while read -r n s; do SECS[$n]=$s; done < <(cat "$TMP/done" 2>/dev/null)
for n in "${RUNS[@]}"; do
  line=$(cat "$TMP/blocks/$n.line")
  if [[ -n "${SECS[$n]:-}" ]]; then
    echo "ok   README.md:$line: ran (${SECS[$n]} s)"
    PASS=$((PASS+1))
    if [[ -f "$TMP/blocks/$n.expect" ]]; then
      if python3 "$TMP/walk.py" check "$TMP/blocks/$n.expect" "$TMP/blocks/$n.out" "$line"; then
        PASS=$((PASS+1))
      else
        FAIL=$((FAIL+1))
      fi
    fi
  elif [[ "$(cat "$TMP/current" 2>/dev/null)" == "$n" ]]; then
    FAIL=$((FAIL+1))
    echo "FAIL README.md:$line: the block failed (exit status $walk_rc$( ((walk_rc == 124)) && echo ': timed out'))"
    sed 's/^/     | /' "$TMP/blocks/$n.sh"
    echo "     its output:"
    sed 's/^/     | /' "$TMP/blocks/$n.out" 2>/dev/null | tail -30
    if [[ -f "$TMP/home/kuotad.log" ]]; then
      echo "     kuotad's log (~/kuotad.log):"
      tail -20 "$TMP/home/kuotad.log" | sed 's/^/     | /'
    fi
  else
    echo "not run README.md:$line: an earlier block failed"
  fi
done
(( parse_rc != 0 )) && FAIL=$((FAIL+1))
echo "readme walk: ${#RUNS[@]} blocks, $PASS passed, $FAIL failed, $(grep -c . "$TMP/done" 2>/dev/null || echo 0) run in $(awk -v s="$T0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }') s"
(( FAIL == 0 && walk_rc == 0 ))
