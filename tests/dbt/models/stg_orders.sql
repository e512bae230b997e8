{{ config(materialized='view') }}
select id, customer_id, status, amount, batch
from {{ ref('orders') }}
where batch <= {{ var('batch') }}
