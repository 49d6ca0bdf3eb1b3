# sbx-provisiond in a container (docs/provisiond.md, "As a container").
# Build from the top of the source tree:
#   docker build -f contrib/provisiond.Dockerfile -t sbx-provisiond .
# Run on the host network with the engine's socket, a configuration, a
# volume for the ownership records and a key (it listens on 0.0.0.0).
FROM debian:12 AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
        build-essential autoconf automake libtool pkg-config \
        libcurl4-openssl-dev libjson-c-dev libmicrohttpd-dev libcunit1-dev libssl-dev \
        libsqlite3-dev libhiredis-dev \
    && rm -rf /var/lib/apt/lists/*
COPY . /src
WORKDIR /src
RUN autoreconf -fi && ./configure --prefix=/usr && make -j"$(nproc)" && make install DESTDIR=/out

FROM debian:12
RUN apt-get update && apt-get install -y --no-install-recommends \
        libcurl4 libjson-c5 libmicrohttpd12 libssl3 libsqlite3-0 libhiredis0.14 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr /usr
RUN ldconfig && mkdir -p /var/lib/sbx-provisiond /etc/sbx
VOLUME /var/lib/sbx-provisiond
EXPOSE 8002
STOPSIGNAL SIGTERM
ENTRYPOINT ["sbx-provisiond", "--config", "/etc/sbx/provisiond.json", \
            "--state-dir", "/var/lib/sbx-provisiond", "--listen", "0.0.0.0:8002"]
