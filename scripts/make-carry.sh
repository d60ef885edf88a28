#!/usr/bin/env bash
# make-carry.sh [--gui] [--ssh]: makes .carry/, what the device scripts need on a GPU machine that has
# no Qt, no GoogleTest package and no package registry (the lent H200). Run it here, then name
# .carry in the device tool's `carry`.
#
#   .carry/prefix/      the header-only packages (nlohmann_json, CLI11, tl-expected) with their
#                       CMake package files, for scripts/gpu-check.sh and scripts/record-check.sh
#   .carry/googletest/  a GoogleTest source tree, for the same
#   .carry/gui-bundle.tar.xz (with --gui)
#                       the GUI, slicescope-cli and tst_livegpu built here, every shared library
#                       they need except the base system's, the Qt offscreen platform plugin,
#                       DejaVu fonts with a fonts.conf: what scripts/gui-device-check.sh unpacks
#   .carry/openssh/ (with --ssh)
#                       Debian's ssh, sshd and ssh-keygen with the shared libraries they need
#                       beyond glibc, behind wrappers in openssh/bin that set LD_LIBRARY_PATH:
#                       what scripts/device-ssh-check.sh runs the --host tests with
#
# The bundle is built from $SLICESCOPE_BUILD_DIR (default: build/, the dev preset), whose targets
# slicescope, slicescope-cli and tst_livegpu it builds first. Binaries built on Debian 12
# (glibc 2.36) run on Ubuntu 24.04 (glibc 2.39); the libraries every such machine has, newer,
# stay out (glibc's, libgcc_s, libstdc++), and so do the CUDA driver, runtime and CUPTI, which a
# GPU machine has and which must match its driver.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
CARRY=${SLICESCOPE_CARRY:-$SRC/.carry}
BUILD=${SLICESCOPE_BUILD_DIR:-$SRC/build}
GUI=0
SSH=0
for arg in "$@"; do
    case $arg in
    --gui) GUI=1 ;;
    --ssh) SSH=1 ;;
    -h | --help)
        sed -n '2,22p' "$0"
        exit 0
        ;;
    *)
        echo "make-carry.sh: unknown argument '$arg'" >&2
        exit 2
        ;;
    esac
done

# --- prefix/ and googletest/ ---------------------------------------------------------------
# Each package's CMake files find their headers three folders up (share/cmake/<name>), so the
# same layout under prefix/ works from wherever prefix/ lands.
copy_package() { # copy_package CMAKE_NAME HEADER_PATH...
    local name=$1
    shift
    local config=
    for dir in /usr/share/cmake /usr/lib/cmake /usr/lib/x86_64-linux-gnu/cmake; do
        if [ -d "$dir/$name" ]; then config=$dir/$name; fi
    done
    if [ -z "$config" ]; then
        echo "make-carry.sh: no CMake package files for $name (install its -dev package)" >&2
        exit 1
    fi
    mkdir -p "$CARRY/prefix/share/cmake" "$CARRY/prefix/include"
    cp -r "$config" "$CARRY/prefix/share/cmake/"
    for header in "$@"; do
        cp -r "/usr/include/$header" "$CARRY/prefix/include/"
    done
}
rm -rf "$CARRY/prefix" "$CARRY/googletest"
copy_package nlohmann_json nlohmann
copy_package CLI11 CLI
copy_package tl-expected tl
if [ ! -f /usr/src/googletest/CMakeLists.txt ]; then
    echo "make-carry.sh: no GoogleTest sources in /usr/src/googletest (apt-get install googletest)" >&2
    exit 1
fi
cp -r /usr/src/googletest "$CARRY/googletest"
echo "made $CARRY/prefix and $CARRY/googletest ($(du -sh "$CARRY/prefix" "$CARRY/googletest" | awk '{print $1}' | paste -sd+))"

# --- openssh/ ------------------------------------------------------------------------------
if [ "$SSH" = 1 ]; then
    O=$CARRY/openssh
    rm -rf "$O"
    mkdir -p "$O/real" "$O/lib" "$O/bin"
    for program in /usr/bin/ssh /usr/bin/ssh-keygen /usr/sbin/sshd; do
        cp "$program" "$O/real/"
        ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
    done | sort -u | while read -r soname path; do
        # glibc's own libraries stay out: the target's are newer.
        if ! [[ $soname =~ ^(libc|libm|libdl|libpthread|librt|libresolv|libnsl)\.so ]]; then
            cp -L "$path" "$O/lib/$soname"
        fi
    done
    # ldd finds libnsl through libwrap; glibc's libnsl.so.2 is libnsl2's on Debian 12, so bring it.
    cp -L /lib/x86_64-linux-gnu/libnsl.so.2 "$O/lib/" 2>/dev/null || true
    for program in ssh ssh-keygen sshd; do
        # sshd re-executes itself by the absolute path it was started with: the real binary.
        printf '#!/bin/sh\nO=$(cd "$(dirname "$0")/.." && pwd)\nLD_LIBRARY_PATH=$O/lib exec "$O/real/%s" "$@"\n' \
            "$program" >"$O/bin/$program"
        chmod +x "$O/bin/$program"
    done
    echo "made $O ($(du -sh "$O" | cut -f1), $(ls "$O/lib" | wc -l) libraries; OpenSSH $(ssh -V 2>&1))"
fi

if [ "$GUI" = 0 ]; then
    exit 0
fi

# --- gui-bundle.tar.xz ---------------------------------------------------------------------
cmake --build "$BUILD" -j "${JOBS:-2}" --target slicescope slicescope-cli tst_livegpu
QT_PLUGINS=$(qtpaths6 --query QT_INSTALL_PLUGINS 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/qt6/plugins)
STAGE=$(mktemp -d /tmp/slicescope-gui-bundle.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
B=$STAGE/slicescope-gui-bundle
mkdir -p "$B/bin" "$B/lib" "$B/plugins/platforms" "$B/plugins/imageformats" "$B/plugins/iconengines" "$B/fonts"
for program in slicescope slicescope-cli tst_livegpu; do
    cp "$BUILD/bin/$program" "$B/bin/"
done
# offscreen: the platform; svg: the window icon and SVG export's icons.
cp "$QT_PLUGINS/platforms/libqoffscreen.so" "$B/plugins/platforms/"
cp "$QT_PLUGINS/imageformats/libqsvg.so" "$B/plugins/imageformats/"
cp "$QT_PLUGINS/iconengines/libqsvgicon.so" "$B/plugins/iconengines/"
# Plugins from the bundle only: without this, Qt also looks in the folder it was built for.
printf '[Paths]\nPrefix = ..\nPlugins = plugins\n' >"$B/bin/qt.conf"

# The base every Linux has (glibc, the GCC runtime: newer on the target) and the CUDA libraries
# the GPU machine has (they must match its driver): never bundled.
BASE='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libutil\.so|libresolv\.so|libgcc_s\.so|libstdc\+\+\.so|libcuda\.so|libcudart\.so|libcupti\.so|libnvidia-)'
for file in "$B"/bin/slicescope* "$B"/bin/tst_* "$B"/plugins/*/*.so; do
    ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
    if ! [[ $soname =~ $BASE ]]; then
        cp -L "$path" "$B/lib/$soname"
    fi
done
missing=$(for file in "$B"/bin/slicescope* "$B"/bin/tst_* "$B"/plugins/*/*.so; do ldd "$file"; done | grep "not found" | sort -u || true)
if [ -n "$missing" ]; then
    echo "make-carry.sh: libraries not found here:" >&2
    echo "$missing" >&2
    exit 1
fi

# Fonts: DejaVu (fonts-dejavu-core), found through a fonts.conf beside them, so text renders
# on a machine with no fonts at all.
for font in DejaVuSans DejaVuSans-Bold DejaVuSansMono DejaVuSansMono-Bold DejaVuSerif DejaVuSerif-Bold; do
    cp "/usr/share/fonts/truetype/dejavu/$font.ttf" "$B/fonts/"
done
cat >"$B/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- SliceScope's GUI bundle: only its own fonts, found relative to this file. -->
<fontconfig>
  <dir prefix="relative">fonts</dir>
  <cachedir>/tmp/slicescope-gui-bundle-fontcache</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>serif</family><prefer><family>DejaVu Serif</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
</fontconfig>
EOF

# The environment that runs it (scripts/gui-device-check.sh sources it).
cat >"$B/env.sh" <<'EOF'
# Source me: the bundle's libraries, plugins and fonts, then CUPTI and the CUDA runtime of the
# machine's own toolkit.
BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CUDA_LIB=${CUDA_LIB:-$(ls -d /usr/local/cuda-13*/targets/x86_64-linux/lib /usr/local/cuda/lib64 2>/dev/null | head -1)}
export LD_LIBRARY_PATH=$BUNDLE/lib${CUDA_LIB:+:$CUDA_LIB}
export QT_PLUGIN_PATH=$BUNDLE/plugins
export QT_QPA_PLATFORM=offscreen
export FONTCONFIG_FILE=$BUNDLE/fonts.conf
export SLICESCOPE_CLI=$BUNDLE/bin/slicescope-cli
export PATH=$BUNDLE/bin:$PATH
EOF

strip --strip-debug "$B"/bin/slicescope* "$B"/bin/tst_* "$B"/lib/*.so* "$B"/plugins/*/*.so
{
    echo "SliceScope GUI bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "sources: $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null)$(git -C "$SRC" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "Qt: $(qtpaths6 --qt-version 2>/dev/null)"
    (cd "$B" && find . -type f -printf '%s\t%p\n' | sort -k2)
} >"$B/MANIFEST"

mkdir -p "$CARRY"
tar -C "$STAGE" -cf - slicescope-gui-bundle | xz -T0 -9 >"$CARRY/gui-bundle.tar.xz.tmp"
mv "$CARRY/gui-bundle.tar.xz.tmp" "$CARRY/gui-bundle.tar.xz"
size=$(stat -c %s "$CARRY/gui-bundle.tar.xz")
echo "made $CARRY/gui-bundle.tar.xz: $((size / 1024 / 1024)) MiB ($(du -sh "$B" | cut -f1) unpacked, $(ls "$B/lib" | wc -l) libraries)"
# The device tool carries 64 MiB in all, prefix/ and googletest/ included.
if [ "$size" -gt $((40 * 1024 * 1024)) ]; then
    echo "make-carry.sh: the bundle is over 40 MiB" >&2
    exit 1
fi
