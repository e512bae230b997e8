{{ config(materialized='incremental', incremental_strategy='append') }}
select id, customer_id, status, amount, batch
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where id > (select coalesce(max(id), 0) from {{ this }})
{% endif %}
