# imgscale in a container: docker build -t imgscale:0.1.0 .
#   docker run --rm -v "$PWD:/data" -w /data imgscale:0.1.0 fill --size 256x256 photo.jpg -o thumb.jpg
# Stage 1 builds with Swift 6 on Debian 12; stage 2 holds the binary (Swift runtime linked
# statically) and only the shared libraries it needs. The runtime package list is what
# `ldd` of the binary resolves to through `dpkg -S`; CLITests.InstallTests checks it.
FROM swift:6.0-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libpng-dev libjpeg-dev liblcms2-dev libwebp-dev libheif-dev libgif-dev libcgif-dev libtiff-dev libjxl-dev libisal-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product imgscale \
 && install -D .build/release/imgscale /out/imgscale \
 && /out/imgscale help --man > /out/imgscale.1

FROM debian:bookworm-slim
# runtime packages (keep in step with ldd; InstallTests compares them)
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libaom3 libbrotli1 libc6 libcgif0 libdav1d6 libde265-0 libdeflate0 libgcc-s1 libgif7 libheif1 libhwy1 libisal2 libjbig0 libjpeg62-turbo \
      libjxl0.7 liblcms2-2 liblerc4 liblzma5 libnuma1 libpng16-16 libstdc++6 libtiff6 libwebp7 libwebpdemux2 libwebpmux3 libx265-199 \
      libzstd1 zlib1g \
 && rm -rf /var/lib/apt/lists/*
# opened on first use, not linked: librsvg for SVG input, libcrypto's SHA-256 for
# --report and --if-changed (a portable one stands in without it)
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends librsvg2-2 libssl3 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/imgscale /usr/local/bin/imgscale
COPY --from=build /out/imgscale.1 /usr/local/share/man/man1/imgscale.1
RUN imgscale --version
ENTRYPOINT ["imgscale"]
