#!/usr/bin/env bash
# The image of scripts/image.sh under the runtimes of clusters:
#  - Charliecloud (ch-run, unprivileged): the root tarball made an image
#    folder (ch-convert); `loaz gtp` answers genmove with the shipped net
#    and `loaz train configs/tiny.yaml` makes a checkpoint in a run
#    directory bound at /mnt/run; then the cluster test's run
#    (tests/train/cluster_test.sh) with every job's loaz in the image;
#  - Podman: the OCI image loads and says its command, path and folder;
#    where this machine lets Podman start containers, `loaz gtp` there too
#    (LOAZ_REQUIRE_PODMAN=1 makes a machine that does not a failure).
# .ci/run runs it after scripts/image.sh; it needs Charliecloud, Podman,
# and for the cluster's part root, Slurm and munge (scripts/setup.sh).
# usage: image_test.sh dist/loazero-VERSION-root.tar.gz LOAZ RUN_COUNTS
set -euo pipefail
src=$(realpath "$(dirname "$0")/../..")
root_tarball=$(realpath "$1")
loaz=$(realpath "$2")
run_counts=$(realpath "$3")
oci=${root_tarball%-root.tar.gz}-image.tar
version=$(basename "$root_tarball" -root.tar.gz)
version=${version#loazero-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in ch-convert ch-run podman; do
  command -v $tool >/dev/null || fail "needs $tool (scripts/setup.sh installs it)"
done
export USER=${USER:-$(id -un)}  # ch-run asks for it

echo "== Charliecloud: the image as a folder"
image=$tmp/loazero
ch-convert -i tar "$root_tarball" "$image" >/dev/null
in_image() { ch-run --bind="$tmp/runs:/mnt/run" --cd=/mnt/run "$image" -- "$@"; }
mkdir -p "$tmp/runs"
echo "== loaz gtp plays the shipped net"
reply=$(printf 'genmove b\nquit\n' | in_image loaz gtp --player mcts:playouts=100 2>"$tmp/gtp.err")
echo "$reply" | grep -qE '^= [a-h][1-8][-x][a-h][1-8]' || fail "gtp: $reply $(cat "$tmp/gtp.err")"
echo "$reply" | head -1
echo "== loaz train makes a checkpoint in the bound run directory"
in_image loaz train /usr/local/lib/loazero/configs/tiny.yaml --set run.directory=/mnt/run \
  --set train.max_steps=20 >"$tmp/train.log" 2>&1 || fail "train: $(tail -5 "$tmp/train.log")"
ls "$tmp"/runs/tiny/checkpoints/ckpt_*.pt >/dev/null 2>&1 || fail "no checkpoint: $(tail -5 "$tmp/train.log")"
"$loaz" status --run "$tmp/runs/tiny" --state | grep -qx finished || fail "the run in the image did not finish"

echo "== Podman: the OCI image"
podman load -q -i "$oci" >/dev/null || fail "podman cannot load $oci"
config=$(podman image inspect "loazero:$version" --format '{{json .Config}}')
for want in '"/usr/local/bin/loaz","help"' '/mnt/run' 'PATH=/usr/local/bin'; do
  [[ $config == *"$want"* ]] || fail "the OCI image's config lacks $want: $config"
done
if reply=$(printf 'genmove b\nquit\n' | podman run --rm -i --network=none "loazero:$version" \
  loaz gtp --player mcts:playouts=100 2>"$tmp/podman.err"); then
  echo "$reply" | grep -qE '^= [a-h][1-8][-x][a-h][1-8]' || fail "gtp under podman: $reply"
  echo "$reply" | head -1
elif [ "${LOAZ_REQUIRE_PODMAN:-0}" = 1 ]; then
  fail "podman run: $(tail -1 "$tmp/podman.err")"
else
  echo "podman cannot start containers on this machine: $(tail -1 "$tmp/podman.err")"
fi

echo "== the cluster test's run, its jobs in the image"
LOAZ_CLUSTER_IMAGE=$image "$src/tests/train/cluster_test.sh" "$loaz" "$src" "$run_counts"
echo "PASS: the image runs under Charliecloud ($(du -m "$root_tarball" | cut -f1) MB as a root tarball," \
  "$(du -m "$oci" | cut -f1) MB as an OCI image)"
