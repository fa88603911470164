#ifndef GCDCAT_CCURL_SHIM_H
#define GCDCAT_CCURL_SHIM_H
// libcurl's easy interface from Debian's libcurl4-openssl-dev: the S3 client's HTTP
// (CurlTransport). curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call, so each argument type gets a typed wrapper here.
#include <curl/curl.h>

typedef size_t (*gcdcat_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode gcdcat_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gcdcat_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gcdcat_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gcdcat_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gcdcat_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode gcdcat_curl_set_callback(
    CURL *handle, CURLoption option, gcdcat_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

typedef int (*gcdcat_curl_seek_callback)(void *context, curl_off_t offset, int origin);

static inline CURLcode gcdcat_curl_set_seek_callback(CURL *handle, gcdcat_curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

typedef int (*gcdcat_curl_progress_callback)(
    void *context, curl_off_t download_total, curl_off_t downloaded, curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode gcdcat_curl_set_progress_callback(CURL *handle, gcdcat_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline long gcdcat_curl_info_long(CURL *handle, CURLINFO info, long fallback) {
    long value = 0;
    if (curl_easy_getinfo(handle, info, &value) != CURLE_OK) return fallback;
    return value;
}
#endif
