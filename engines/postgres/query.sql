SELECT count(*) AS n, sum(hashtext(s) % 1000003) AS checksum FROM (SELECT s, row_number() OVER (ORDER BY s) AS r FROM (SELECT md5(i::text) AS s FROM generate_series(1, 200000) i) t) u;
