# memlab/base:bookworm from a registry image, for hosts where a registry is reachable
# (`memlab images build base --base-from debian:bookworm-slim`). Air-gapped hosts
# bootstrap the same package set from a Debian mirror instead (lab/images.py).
ARG FROM=debian:bookworm-slim
FROM ${FROM}
ARG PACKAGES
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${PACKAGES} \
 && rm -rf /var/lib/apt/lists/*
ENV LANG=C.UTF-8
CMD ["/bin/bash"]
