#!/usr/bin/env bash
# Makes the image for clusters (docs/CLUSTER.md), with no registry: a
# minimal Debian 12 root (mmdebstrap --variant=minbase: none of the
# project's packages) holding the bundle of scripts/bundle.sh in
# /usr/local/lib/loazero, loaz and loaz-torch in /usr/local/bin (on the
# path), and /mnt/run, where a job's run directory is bound. It writes
#   dist/loazero-VERSION-root.tar.gz  the root as one tarball: Charliecloud's
#       form (ch-convert it to a folder or a SquashFS file, then ch-run);
#   dist/loazero-VERSION-image.tar    the OCI image (a docker-archive, one
#       layer), where Podman is: podman load, docker load, skopeo, and
#       apptainer build loazero.sif docker-archive:dist/loazero-VERSION-image.tar;
#       Podman's store keeps it as loazero:VERSION.
# usage: scripts/image.sh [BUNDLE.tar.gz]   (root, and Debian's mirror; default: scripts/bundle.sh's)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^project(LOAZero VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
bundle=${1:-dist/loazero-$version-linux-x86_64.tar.gz}
command -v mmdebstrap >/dev/null || { echo "image.sh: needs mmdebstrap (scripts/setup.sh installs it)" >&2; exit 1; }
[ -f "$bundle" ] || bash scripts/bundle.sh
bundle=$(realpath "$bundle")
root=dist/loazero-$version-root.tar.gz
image=dist/loazero-$version-image.tar
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The bundle goes in whole (programs, libraries, page, net, configs, docs:
# they find each other through their own folder); the image's first
# command proves it runs there.
mmdebstrap --variant=minbase --quiet \
  --customize-hook="mkdir -p \"\$1/usr/local/lib\" \"\$1/mnt/run\" && tar -C \"\$1/usr/local/lib\" -xzf '$bundle'" \
  --customize-hook='mv "$1"/usr/local/lib/loazero-*-linux-x86_64 "$1/usr/local/lib/loazero"' \
  --customize-hook='ln -s ../lib/loazero/bin/loaz ../lib/loazero/bin/loaz-torch "$1/usr/local/bin/"' \
  --customize-hook='printf "genmove b\nquit\n" | chroot "$1" /usr/local/bin/loaz gtp --player mcts:playouts=20 | grep -q "^= "' \
  bookworm "$tmp/root.tar" >/dev/null
gzip -c "$tmp/root.tar" >"$root.tmp"
mv "$root.tmp" "$root"
echo "image.sh: $root, $(du -m "$root" | cut -f1) MB (Charliecloud: ch-convert $root DIR; ch-run DIR -- loaz)"

if command -v podman >/dev/null; then
  podman import --quiet --message "LOAZero $version" \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'WORKDIR /mnt/run' \
    --change 'CMD ["/usr/local/bin/loaz", "help"]' "$tmp/root.tar" "loazero:$version" >/dev/null
  rm -f "$image.tmp"
  podman save --quiet --format docker-archive -o "$image.tmp" "loazero:$version"
  mv "$image.tmp" "$image"
  echo "image.sh: $image, $(du -m "$image" | cut -f1) MB, and loazero:$version in Podman's store" \
    "(podman load -i $image; apptainer build loazero.sif docker-archive:$image)"
else
  echo "image.sh: no podman here: no OCI image, only the root (scripts/setup.sh installs podman)"
fi
