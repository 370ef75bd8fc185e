/** Puppeteer never downloads a browser: tests use PUPPETEER_EXECUTABLE_PATH or Debian's /usr/bin/chromium. */
module.exports = { skipDownload: true };
