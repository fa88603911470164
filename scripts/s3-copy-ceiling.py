#!/usr/bin/env python3
"""The gateway's ceiling for a server-side merge: one multipart upload whose parts are
UploadPartCopys of whole objects, all sent at once from threads of one botocore client
(CreateMultipartUpload, the copies in parallel, CompleteMultipartUpload), timed in-process
so no process start is counted. bench-s3.sh compares gcdcat's merge of the same parts.

    s3-copy-ceiling.py ENDPOINT BUCKET PREFIX COUNT OUTPUT_KEY

copies PREFIX001 .. PREFIX{COUNT} (three digits) into OUTPUT_KEY; prints the seconds.
Keys come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, as for awscli.
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import botocore.session
from botocore.config import Config


def main():
    endpoint, bucket, prefix, count, output = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    client = botocore.session.get_session().create_client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        config=Config(max_pool_connections=count, retries={"max_attempts": 1}, s3={"addressing_style": "path"}))
    sources = [f"{prefix}{number:03d}" for number in range(1, count + 1)]
    start = time.monotonic()
    upload = client.create_multipart_upload(Bucket=bucket, Key=output)["UploadId"]
    try:
        def copy(number):
            answer = client.upload_part_copy(
                Bucket=bucket, Key=output, UploadId=upload, PartNumber=number,
                CopySource={"Bucket": bucket, "Key": sources[number - 1]})
            return {"PartNumber": number, "ETag": answer["CopyPartResult"]["ETag"]}

        with ThreadPoolExecutor(max_workers=count) as pool:
            parts = list(pool.map(copy, range(1, count + 1)))
        client.complete_multipart_upload(
            Bucket=bucket, Key=output, UploadId=upload, MultipartUpload={"Parts": parts})
    except BaseException:
        client.abort_multipart_upload(Bucket=bucket, Key=output, UploadId=upload)
        raise
    print(f"{time.monotonic() - start:.4f}")


if __name__ == "__main__":
    main()
