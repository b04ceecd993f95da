-- SLOB schemas (users named like :user_pattern, e.g. 'USER%') and their segment sizes.
-- Bind variables: :user_pattern
SELECT u.username                    AS username,
       NVL(SUM(s.bytes), 0)          AS segment_bytes,
       COUNT(s.segment_name)         AS segment_count
  FROM dba_users u
  LEFT JOIN dba_segments s ON s.owner = u.username
 WHERE u.username LIKE :user_pattern
 GROUP BY u.username
 ORDER BY u.username
