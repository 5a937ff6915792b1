#!/usr/bin/env bash
# Makes dist/loazero-VERSION-linux-x86_64.tar.gz: a folder that runs with
# no root and no build, anywhere it is unpacked, on a Linux x86-64 whose
# glibc is at least the one it names (bundle/GLIBC). It holds bin/loaz and
# bin/loaz-torch, built for any x86-64 (no -march=native; oneDNN picks its
# kernels at run time), every shared library they load except glibc's own
# in lib/ (found through $ORIGIN), the page (web/, share/chart.js/), the
# shipped net (nets/), the configs and the docs. The programs read the
# page and the net from the folder (InstalledFile, core/file_util.h).
# usage: scripts/bundle.sh        (after scripts/setup.sh; builds into build-bundle/)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^project(LOAZero VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name=loazero-$version-linux-x86_64
build=build-bundle
stage=dist/$name
for tool in patchelf objdump; do
  command -v $tool >/dev/null || { echo "bundle.sh: needs $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done

# Programs for any x86-64 (x86-64-v2: SSE4.2 and POPCNT, every x86-64
# server since 2009), not for this machine's processor.
generator=()
command -v ninja >/dev/null && [ ! -f $build/CMakeCache.txt ] && generator=(-G Ninja)
cmake -S . -B $build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLOAZ_NATIVE=OFF -DLOAZ_TESTS=OFF \
  -DLOAZ_BENCH=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v2 >/dev/null
cmake --build $build -j "$(nproc)" --target loaz

rm -rf "$stage" "dist/$name.tar.gz"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/chart.js" "$stage/nets"
cp $build/app/loaz $build/app/loaz-torch "$stage/bin/"
# Every library the programs load, but glibc's own (the loader, libc, libm,
# ...: the system's, which the programs must match).
glibc='^(ld-linux.*|libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libcrypt)\.so'
ldd "$stage/bin/loaz" "$stage/bin/loaz-torch" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  while read -r lib; do
    base=$(basename "$lib")
    [[ $base =~ $glibc ]] && continue
    cp -L "$lib" "$stage/lib/$base"
  done
chmod u+w "$stage"/lib/*
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$stage/bin/loaz" "$stage/bin/loaz-torch"
for lib in "$stage"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$lib"; done
# The page, its chart library, the nets, the configs, the docs.
cp -r web "$stage/web"
cp -L /usr/share/javascript/chart.js/chart.min.js "$stage/share/chart.js/"
cp nets/*.safetensors nets/*.yaml nets/README.md "$stage/nets/"
cp -r configs "$stage/configs"
cp -r docs "$stage/docs"
cp README.md "$stage/"
# The newest glibc symbol version any file asks for: the oldest glibc it runs on.
needs=$(objdump -T "$stage"/bin/* "$stage"/lib/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
echo "${needs#GLIBC_}" >"$stage/GLIBC"
tar -C dist -czf "dist/$name.tar.gz" "$name"
rm -rf "$stage"
echo "bundle: dist/$name.tar.gz, $(du -m "dist/$name.tar.gz" | cut -f1) MB; needs glibc ${needs#GLIBC_} or newer"
