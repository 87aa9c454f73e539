# gobgpd (and its CLI, gobgp) from Debian's package, for the compose testbed.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends gobgpd \
    && rm -rf /var/lib/apt/lists/*
EXPOSE 179
