# imgscale in a container: docker build -t imgscale:0.1.0 .
#   docker run --rm -v "$PWD:/data" -w /data imgscale:0.1.0 fill --size 256x256 photo.jpg -o thumb.jpg
# Stage 1 builds the Debian package with Swift 6 on Debian 12 (scripts/package-deb: the
# Swift runtime linked statically, Depends traced from the binary). Stage 2 installs that
# .deb with apt, which brings exactly the runtime libraries it depends on.
# scripts/test-package builds stage 2 with podman on a clean debootstrap root, given the
# .deb it tested (--build-arg DEB_STAGE=an image holding it in /out, RUNTIME_BASE=that
# root), so the image tested there and this one install the same package the same way.
ARG RUNTIME_BASE=debian:bookworm-slim
ARG DEB_STAGE=build

FROM swift:6.0-bookworm AS build
WORKDIR /src
COPY Package.swift LICENSE THIRD_PARTY.md ./
COPY Sources ./Sources
COPY scripts ./scripts
COPY TestImages/scene-640x427.jpg ./TestImages/
# package-deb installs the build libraries itself (scripts/install-deps).
RUN scripts/package-deb --out /out

FROM ${DEB_STAGE} AS deb

FROM ${RUNTIME_BASE} AS runtime
COPY --from=deb /out/ /tmp/imgscale-deb/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y /tmp/imgscale-deb/imgscale_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/imgscale-deb \
 && imgscale --version
ENTRYPOINT ["imgscale"]
