# syntax=docker/dockerfile:1
#
# mneme-gate in a container. Build from the repository root:
#
#   docker build -t mneme-gate .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/work" mneme-gate run
#
# The project is mounted at /work at run time (its .git too, for --baseline-ref and the git
# fields of reports); nothing of it but the Rust sources goes into the build (.dockerignore).
# Base images are pinned by exact version tag and by digest (multi-arch index).

FROM rust:1.95.0-slim-bookworm@sha256:d7482085ff5b415f84dba5647ae71606650bdef00db7aeb69f4b3d170c3e4082 AS builder
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY templates ./templates
# The workspace's other member (the development tool): cargo reads its manifest; it is not built.
COPY crates ./crates
# libgit2 and zlib are built by their -sys crates with the image's gcc (git2 without default
# features: no OpenSSL, no SSH). The target dir is a cache mount, so the binary is copied out
# in the same step.
# The release workflow passes the release's tag, so that `init` in the image names that release;
# empty for any other build (`init` then names the branch, which the action builds from source).
ARG MNEME_GATE_RELEASE_TAG=""
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked --bin mneme-gate \
    && install -m 0755 target/release/mneme-gate /usr/local/bin/mneme-gate

FROM debian:12.12-slim@sha256:d5d3f9c23164ea16f31852f95bd5959aad1c5e854332fe00f7b3a20fcc9f635c
# The source label links the image on ghcr.io to the repository (.github/workflows/release.yml
# pushes it there, adding the version and revision labels).
LABEL org.opencontainers.image.title="mneme-gate" \
      org.opencontainers.image.description="CI governance gate for AI coding agents' architectural-decision retrieval" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="https://github.com/mneme-gate/mneme-gate"
# The mounted repository usually belongs to another user than the container's, and libgit2
# (like git) refuses to open a repository owned by someone else unless safe.directory allows
# it. This image only ever reads the repository it is given, so every directory is trusted.
RUN printf '[safe]\n\tdirectory = *\n' > /etc/gitconfig \
    && groupadd --system --gid 10001 mneme \
    && useradd --system --uid 10001 --gid mneme --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin mneme
COPY --from=builder /usr/local/bin/mneme-gate /usr/local/bin/mneme-gate
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["mneme-gate"]
CMD ["run"]
